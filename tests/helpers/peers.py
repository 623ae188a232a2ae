"""Where ../shared/tools/setup-peers.sh puts the peer engines that some tests play
against (the tests skip when one is not built)."""
from pathlib import Path

PEERS = Path.home() / ".cache" / "usi-peers"
YANEURAOU_MATERIAL = PEERS / "yaneuraou-material"
YANEURAOU_NNUE = PEERS / "yaneuraou-nnue"
KOMORING_HEIGHTS = PEERS / "komoring-heights"
