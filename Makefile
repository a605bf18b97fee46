# Two commands do everything on a fresh machine: `make sim` and `make test`.
VENV := .venv
PY := $(VENV)/bin/python3
STAMP := $(VENV)/.installed-$(shell cksum < requirements.txt | cut -d' ' -f1)

.PHONY: test sim bench clean

$(STAMP): requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $@

# the virtual Pico's Node packages (tools/vpico/package-lock.json), like .venv
VPICO_STAMP := tools/vpico/node_modules/.installed-$(shell cksum < tools/vpico/package-lock.json | cut -d' ' -f1)

$(VPICO_STAMP): tools/vpico/package-lock.json
	cd tools/vpico && npm ci --no-audit --no-fund --loglevel=error
	rm -f tools/vpico/node_modules/.installed-*
	touch $@

# The suite on every core (TEST_JOBS=1: one process); host_tests/conftest.py orders it.
TEST_JOBS ?= auto
test: $(STAMP) $(VPICO_STAMP) uf2
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder host_tests

sim: $(STAMP)
	$(PY) tools/sim.py $(SIM_ARGS)

# The simulated table in a web browser (tools/play.py): `make play PLAY_ARGS="--seats 6"`.
.PHONY: play
play: $(STAMP)
	$(PY) tools/play.py $(PLAY_ARGS)

# Every figure in README.md comes from this output (each README table names its command).
bench: $(STAMP) $(VPICO_STAMP) uf2
	$(PY) tools/bench_engine.py
	$(PY) tools/bench_hw.py
	$(PY) tools/bench_app.py
	$(PY) tools/odds.py --packs 8 --dealer h17
	$(PY) tools/odds.py --packs 8 --dealer s17
	$(PY) tools/odds.py --packs 8 --dealer casino
	$(PY) tools/simulate.py --preset casino --deals 200000 --seats 5 --strategy basic --seed 1 --packs 8
	$(PY) tools/bench_reader.py
	$(PY) tools/bench_field_edge.py
	$(PY) tools/bench_field_edge.py --pico --sessions 1 --seats 3 --events 80
	$(PY) tools/bench_load.py
	$(PY) tools/bench_fingers.py
	$(PY) tools/shuffles.py --calibrate --trials 1000
	$(PY) tools/dealer.py --sessions 100
	$(PY) tools/dealer.py --pico --sessions 3
	$(PY) tools/fault_campaign.py --sessions 200
	$(PY) tools/bench_pico.py
	$(PY) tools/bench_pico.py --only frozen --flash-times max
	$(PY) tools/bench_torn.py
	$(PY) tools/card_timeline.py
	$(PY) tools/card_timeline.py --percentile 95 --out out/bench/card_timeline_p95.png
	$(PY) tools/card_timeline.py --board pico_w --out out/bench/card_timeline_w.png

clean:
	rm -rf out build .pytest_cache

# The night in review (tools/night.py): a page a kept session, out/night/NNNN.html, from
# out/flash/history (`make sim`'s shoe) or `make night NIGHT_ARGS="--pull"` (the shoe on
# USB, through mpremote), `NIGHT_ARGS="DIR --csv --json"` (a copy of a shoe's history/).
.PHONY: night
night: $(STAMP)
	$(PY) tools/night.py $(NIGHT_ARGS)

# The wiring diagrams docs/wiring_pico*.png, drawn from boards/pico.py (tools/wiring.py).
.PHONY: wiring
wiring: $(STAMP)
	$(PY) tools/wiring.py

# docs/architecture.png, the firmware's parts and a card's way through them, drawn from
# firmware/ (tools/architecture.py; test_architecture checks it).
.PHONY: architecture
architecture: $(STAMP)
	$(PY) tools/architecture.py

# Compile firmware/ and the drivers to .mpy and copy them to the Pico (tools/deploy.py):
# `make deploy`, `make deploy PORT=/dev/ttyACM0`, `make deploy DEPLOY_ARGS=--dry-run`,
# `make deploy BOARD=pico_w` (the Pico W: the table served over Wi-Fi).
.PHONY: deploy
deploy: $(STAMP)
	$(PY) tools/deploy.py $(if $(PORT),--port $(PORT)) $(if $(BOARD),--board $(BOARD)) $(DEPLOY_ARGS)

# The firmware on the virtual Pico (tools/vpico): deploy through mpremote, play a session.
.PHONY: vpico vpico-deps
vpico-deps: $(VPICO_STAMP)
vpico: $(STAMP) $(VPICO_STAMP) uf2
	$(PY) tools/vpico/session.py $(VPICO_ARGS)

# The shoe's own firmware, one UF2 per board with everything frozen in (tools/uf2.py):
# build/uf2/pontoon-shoe-RPI_PICO.uf2 and build/uf2/pontoon-shoe-RPI_PICO_W.uf2.
# Needs Debian's gcc-arm-none-eabi and libnewlib-arm-none-eabi, and the MicroPython source
# ($$MICROPY_SRC, else ../shared/pico/). `make uf2 UF2_ARGS="--board RPI_PICO"`.
.PHONY: uf2
uf2: $(STAMP)
	$(PY) tools/uf2.py $(UF2_ARGS)
