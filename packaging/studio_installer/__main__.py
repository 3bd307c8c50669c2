import sys

from studio_installer.cli import main

sys.exit(main())
