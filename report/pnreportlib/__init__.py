"""pnreport: HTML run reports, A/B comparison with statistics, a regression gate and a
results dashboard for pnbench.  Reads only results JSON/CSV (see results/README.md)."""
