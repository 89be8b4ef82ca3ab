"""Training setups and sweeps of each paper: functions of one grid point that return
JSON-able metrics, for :func:`lib.results.load_or_run`."""
