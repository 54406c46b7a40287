"""Well behaved: answers every message with {"ok": true, "echo": message}."""
import json
import sys

for line in sys.stdin:
    print(json.dumps({"ok": True, "echo": json.loads(line)}), flush=True)
