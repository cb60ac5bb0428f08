#!/usr/bin/python3
"""pnreport: reports on pnbench results.

Every command is report/pnreportlib/ (cli.py holds the table); `pnreport.py
--help` lists them, `pnreport.py CMD --help` tells each one's options, and
report/README.md says what they read.  Exit codes: 0 done; 1 a regression
(compare --fail-on-regression) or a demo cell off its expected value; 2 bad
input or usage (the message names the file); 4 compare --fail-on-regression
could judge nothing.

Installed (make install) as PREFIX/share/pnbench/report/pnreport.py beside its
package; `pnbench report CMD ...` hands over to it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from pnreportlib.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
