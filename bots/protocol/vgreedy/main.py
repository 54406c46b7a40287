"""The vgreedy bot as a protocol bot: the loop of bots/serve.py around bots/ (uses_engine = true)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# In the sandbox the harness binds the engine and bots packages under /ellibir; outside it, they are
# three folders up (the project, or site-packages).
for root in ("/ellibir", os.path.join(HERE, "..", "..", "..")):
    if os.path.isfile(os.path.join(root, "engine", "__init__.py")) and os.path.isfile(os.path.join(root, "bots", "serve.py")):
        sys.path.insert(0, os.path.abspath(root))
        break

from bots.serve import main  # noqa: E402

main(["vgreedy"] + sys.argv[1:])
