"""`make bench`: the benchmarks (`python -m tools.bench` runs them all, each also alone:
`python -m tools.bench.heap`). A module named without an underscore is a benchmark;
`calls_driver` and `calls_report` are parts of `calls`."""
