"""What the bench entry points share: paths, engines, statistics, records, suites and
the match core."""
