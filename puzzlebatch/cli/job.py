"""``puzzlebatch run JOB.toml``: a batch job described in a file (see :mod:`puzzlebatch.cli.jobfile`)."""

from __future__ import annotations

import shlex


def run_job(args) -> int:
    from puzzlebatch.cli.options import print_json
    from puzzlebatch.cli import jobfile as J

    job = J.load(args.job, J.Application(args.app_parser, args.app_main), dry_run=args.dry_run)
    if args.dry_run:  # counted, not built: only the first few instances are made and checked; nothing written
        doc = {"job": job.name, "family": job.family, "verb": " ".join(job.verb), "instances": job.count,
               "commands": [shlex.join(["puzzlebatch", *a]) for a in job.argvs]}
        if args.json:
            print_json(doc)
        else:
            print("\n".join(doc["commands"]))
            if job.count > len(job.argvs):
                print(f"... and {job.count - len(job.argvs):,} more instance(s) ({job.count:,} in all)")
        return 0
    summary = J.run(job, resume=args.resume)  # --resume of a finished job: NothingToDo, said by the app
    if args.json:
        print_json(summary)
    else:
        print(f"job {job.name}: {summary['ran']} instance(s) run, {summary['skipped']} already done, in "
              f"{summary['seconds']:.1f} s; results in {summary['out']} (run {summary['run_id']})")
    return 0


def register(sub) -> None:
    p = sub.add_parser("run", help="run a batch job described in a TOML file (examples/ has one per family)")
    p.add_argument("job", help="the job file (.toml): family, verb, options, instances, backend, scheduler, out")
    p.add_argument("--resume", action="store_true", help="skip the instances done; resume the interrupted one")
    p.add_argument("--dry-run", action="store_true", help="check the file and print the commands it would run")
    p.add_argument("--json", action="store_true", help="print one JSON document (every instance's result)")
    p.set_defaults(func=run_job)
