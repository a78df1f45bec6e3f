# The two commands a new user needs: `make demo` and `make test`.
# Both bootstrap .venv from PyPI on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench peer fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/run_all.py

# --dist loadfile: a test module's tests share one worker, which builds each of its native
# libraries once (spread over two workers, each with its own cache once a tests/compiler
# test has run there, both built them); tests/conftest.py collects the slowest modules
# first, so that no worker runs a long one alone at the end. A fresh clone with every
# cache empty: 13:31 on a 2-core host (16:05 before the order and the -O0 segments fix).
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples

bench: $(STAMP)
	$(BIN)/python benchmarks/engine_bench.py
	$(BIN)/python benchmarks/subgroup_bench.py
	$(BIN)/python benchmarks/check_bench.py
	$(BIN)/python benchmarks/portability_bench.py
	$(BIN)/python benchmarks/profile_overhead.py
	$(BIN)/python benchmarks/icd_launch_bench.py
	$(BIN)/python benchmarks/launch_bench.py

# PyOpenCL's own test suite on the sgvm platform (long; not part of `make test`).
# With PoCL installed (apt-get install pocl-opencl-icd) it runs there too and compares.
peer: $(STAMP)
	$(BIN)/python tests/peer/pyopencl_suite.py $(if $(wildcard /etc/OpenCL/vendors/pocl.icd),--compare,)

# The long differential run: random sub-group kernels (sub-groups of 8/16/32) on the NumPy
# engine under the checker and on Intel's CPU runtime (x86-64 Linux; docs/oracle.md):
# 5,100 with the khr built-ins, then the 10,260 of the generator before them.
fuzz: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,oracle]'
	$(BIN)/python benchmarks/fuzz_campaign.py --seeds 3420:5120
	$(BIN)/python benchmarks/fuzz_campaign.py --seeds 0:3420 --omit khr

clean:
	rm -rf $(VENV) .pytest_cache build
