from mpstudio.cli import main

raise SystemExit(main())
