from puzzlebatch.cli import main

raise SystemExit(main())
