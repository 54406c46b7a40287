# Set-up is part of every target: a fresh machine needs only `make demo` or `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test bench install clean system-packages

# Debian packages the harness needs: bubblewrap sandboxes subprocess bots. Checked on every run,
# installed only when missing.
system-packages:
	command -v bwrap >/dev/null || { apt-get update && apt-get install -y bubblewrap; }

$(STAMP): pyproject.toml | system-packages
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/ellibir play --bot builtin:greedy --bot builtin:pairs --bot builtin:random --bot builtin:greedy --seed 1 --rounds 3

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
