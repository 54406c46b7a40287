# Set-up is part of every target: a fresh machine needs only `make demo` or `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo arena test bench install clean system-packages bytecode

# Debian packages the harness needs: bubblewrap sandboxes subprocess bots; chromium and its driver
# let the tests open the HTML report; Java and Node.js run the Java and JavaScript starter kits;
# PostgreSQL (its server binaries, for a cluster the tests start themselves) tests the arena server.
# Checked on every run; `apt-get update` and one install only when something is missing.
system-packages:
	@missing=""; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v chromedriver >/dev/null || missing="$$missing chromium-driver"; \
	command -v javac >/dev/null || missing="$$missing openjdk-17-jdk-headless"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	fi

# uv installs (and byte-compiles, on every core) what pip did in a third of the time; pip only fetches uv.
$(STAMP): pyproject.toml | system-packages
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet 'uv>=0.9'
	$(VENV)/bin/uv pip install --quiet --python $(PY) --compile-bytecode -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# The project's own modules compiled once: where PYTHONDONTWRITEBYTECODE is set (as on these machines)
# every process would otherwise compile them again, and the tests start hundreds of processes.
bytecode: $(STAMP)
	$(PY) -m compileall -q -j 0 -x '/(kits|protocol)/' engine bots harness results benchmarks

# A small tournament of the reference bots on a local Ray, ending with the standings and the HTML
# report of the run (its path is printed last). The run folder is made afresh each time (runs/demo);
# `ellibir replay runs/demo MATCH_ID` shows any of its matches.
demo: $(STAMP) bytecode
	rm -rf runs/demo
	$(VENV)/bin/ellibir tournament run --bot builtin:greedy --bot builtin:pairs --bot builtin:random \
		--players 4 --deal-sets 4 --rounds 2 --seed 1 --workers 2 --name demo --out runs/demo
	@printf "report: "
	@$(VENV)/bin/ellibir report runs/demo --html runs/demo/report.html --title "ellibir demo tournament"
	@printf "replay: "
	@$(VENV)/bin/ellibir replay runs/demo "$$($(PY) -c 'import json; print(json.load(open("runs/demo/run.json"))["matches"][0]["id"])')" --html runs/demo/replay.html

# The arena server on loopback (docs/arena.md) with two workers; its field is the reference bots, and the
# Python starter kit is entered by the user "organiser", an admin. Browse http://127.0.0.1:8051/; Ctrl-C stops all.
ARENA_DEMO := runs/arena-demo
arena: $(STAMP) bytecode
	rm -rf $(ARENA_DEMO) && mkdir -p $(ARENA_DEMO)
	$(VENV)/bin/ellibir worker-token w1 --arena $(ARENA_DEMO)/arena > $(ARENA_DEMO)/w1.token
	$(VENV)/bin/ellibir worker-token w2 --arena $(ARENA_DEMO)/arena > $(ARENA_DEMO)/w2.token
	trap 'kill 0' INT TERM; \
	$(VENV)/bin/ellibir serve --arena $(ARENA_DEMO)/arena --rounds 2 --deal-sets 4 & \
	for w in w1 w2; do \
		ELLIBIR_WORKER_TOKEN=$$(cat $(ARENA_DEMO)/$$w.token) $(VENV)/bin/ellibir worker --server http://127.0.0.1:8051 & \
	done; \
	$(PY) -m harness.server.demo http://127.0.0.1:8051 bots/kits/python && \
	$(VENV)/bin/ellibir make-admin organiser --arena $(ARENA_DEMO)/arena; \
	wait

# Tests run on every core (pytest-xdist, at most 4 workers), each worker taking the next test as it
# frees up; a worker builds the session's shared runs (tests/conftest.py) once for its tests.
test: $(STAMP) bytecode
	$(PY) -m pytest -n auto --maxprocesses 4 --dist worksteal

bench: $(STAMP) bytecode
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
