"""The USI front end: the command loop (`loop`), the option table (`options`), time
management (`timeman`), `go` parsing (`go`), `info` lines both ways (`info`), standard
streams (`stdio`), the tuning options (`tuning`), and the one USI client that drives
any engine (`client`).  Pure Python; it drives the compiled core and imports it only
when a command needs it, so `usi` is answered at once."""
