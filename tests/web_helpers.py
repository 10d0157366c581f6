"""Helpers of the web app's tests: wait for jobs through the API."""

import time

JOB_WAIT_SECONDS = 1800  # generous: the first job may wait for the worker's kernels to compile on a busy machine


def wait_job(client, job: dict, headers=None) -> dict:
    """Poll a job until it ends; return its final record."""
    deadline = time.monotonic() + JOB_WAIT_SECONDS
    while time.monotonic() < deadline:
        doc = client.get(f"/api/jobs/{job['id']}", headers=headers or {}).json()
        if doc["status"] in ("done", "failed", "cancelled"):
            return doc
        time.sleep(0.1)
    raise AssertionError(f"job {job['id']} did not end")
