"""The USI front end: the command loop (`loop`), the option table (`options`), time
management and `go` parsing (`timeman`), `info` lines (`info`), standard streams
(`stdio`) and the tuning options (`tuning`).  Pure Python; it drives the compiled core
and imports it only when a command needs it, so `usi` is answered at once."""
