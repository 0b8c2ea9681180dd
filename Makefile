# concord — the two commands: `make run` and `make test`.
# Both install what is missing (Debian packages, idempotent), configure and build in build/.

BUILD ?= build
JOBS ?= $(shell nproc)
PACKAGES := cmake g++ make pkg-config ccache libgtest-dev libbenchmark-dev \
  libopenblas-dev liblapacke-dev libclblast-dev ocl-icd-opencl-dev opencl-headers \
  pocl-opencl-icd clinfo libcli11-dev nlohmann-json3-dev \
  libvulkan-dev mesa-vulkan-drivers glslc \
  libopenmpi-dev openmpi-bin \
  g++-aarch64-linux-gnu
# PyTorch 1.13 for /usr/bin/python3: the differential suite (tests/differential/) and `make bench`.
TORCH_PACKAGES := python3-torch python3-numpy
BENCH_PACKAGES := $(TORCH_PACKAGES)
# The Python package (python/): a venv from Debian's python3 that sees its torch
# and NumPy 1.x (--system-site-packages; pip never replaces them: numpy<2 is pinned).
PY_PACKAGES := python3-venv python3-dev python3-numpy
PYENV := $(BUILD)/pyenv
PYENV_ABS := $(abspath $(PYENV))
# libgomp's default spin-wait after each OpenMP region starves OpenBLAS's own
# threads (README, "Threads"); tests and benchmarks run with a passive policy.
export OMP_WAIT_POLICY ?= passive
# ccache keys on paths relative to the checkout (a clone elsewhere reuses the objects).
export CCACHE_BASEDIR ?= $(CURDIR)
# ...and ignores the locale variables: ctest's --build-and-test sets LC_ALL and
# LC_MESSAGES (empty), which ccache otherwise hashes, so that rebuild missed
# every object (they only change the language of compiler messages).
export CCACHE_SLOPPINESS ?= locale
# Compiled Vulkan shader variants, kept by content and shared by build/,
# build-asan/ and the consumer's build (cmake/glslc_cached.cmake).
export CONCORD_SPIRV_CACHE ?= $(CURDIR)/build-spirv-cache

.PHONY: all deps build run python test bench asan tsan fuzz clean

all: build

deps:
	@bash tools/install-deps.sh $(PACKAGES)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main job: the library and the CLI only (the tests are for `make test`).
run: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target concord_cli
	$(BUILD)/concord devices
	$(BUILD)/concord parity --quick

$(PYENV)/bin/python:
	@bash tools/install-deps.sh $(PY_PACKAGES)
	@bash tools/install-deps.sh $(TORCH_PACKAGES) || echo "warning: could not install $(TORCH_PACKAGES); the differential suite and the PyTorch checks of the Python suite will skip"
	/usr/bin/python3 -m venv --system-site-packages $(PYENV)
	$(PYENV)/bin/pip install -q "nanobind>=2" "scikit-build-core>=0.10" pytest "numpy<2"

# The Python package installed into $(PYENV): the extension is a target of the main
# build (CONCORD_PYTHON) and pip installs it from that build directory (scikit-build-core's
# build-dir), so the library is compiled once.
python: deps $(PYENV)/bin/python
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCONCORD_PYTHON=ON -DPython_EXECUTABLE=$(PYENV_ABS)/bin/python
	cmake --build $(BUILD) -j $(JOBS) --target _concord
	CMAKE_GENERATOR="Unix Makefiles" $(PYENV)/bin/pip install -q --no-build-isolation --no-deps \
	  --config-settings=build-dir=$(abspath $(BUILD)) .

# The whole suite (the C++ tests, then the Python package's pytest suite), then the
# C++ suite again under ASan + UBSan + LSan. The differential suite needs PyTorch;
# where it cannot be installed, that suite skips and says why.
# tools/lanes.sh prints each lane's time at the end.
test: python
	@bash tools/lanes.sh \
	  "build (release)" "cmake --build $(BUILD) -j $(JOBS)" \
	  "ctest (release, every device config)" "cd $(BUILD) && ctest --output-on-failure -j $(JOBS)" \
	  "pytest (python/tests)" "cd python/tests && $(PYENV_ABS)/bin/python -m pytest -q -p no:cacheprovider" \
	  "asan (build + ctest, $(ASAN_DEVICES))" "$(MAKE) --no-print-directory asan"

# The suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer on),
# in its own build directory. tests/lsan.supp names third-party frames only.
# A shared libconcord: statically linked, each of the ~90 instrumented test
# executables carried the whole library (235 MB each, 22 GB in all, more than a
# CI disk may have free); shared, the directory stays near 1 GB.
# intercept_tls_get_addr=0: LeakSanitizer's thread tracer crashed on PoCL's
# worker threads' dynamic TLS; static TLS (concord's thread_locals) is still scanned.
# quarantine_size_mb=32 (default 256): lavapipe's pipeline builds churn
# hundreds of MB, and a large quarantine turned that into fresh pages (a third
# of a Vulkan test's time in page faults); a freed block is still poisoned
# until 32 MB more have been freed (measured: 101 s -> 81 s on one test).
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0:quarantine_size_mb=32 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
# Device configs of this lane: its questions are the host code's memory and
# UB, which the profiles (the same devices with ops moved to the fallback, a
# path emu:0 takes) and emu:0=none (the CPU's kernels, as cpu) ask again; the
# release lane runs every config. Set for the build too: gtest_discover_tests
# lists the parametrised cases then. (Under ASan they took 1450 of 4200 s.)
ASAN_DEVICES ?= cpu,emu:0,opencl:0,vulkan:0
asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Sanitize -DCONCORD_SANITIZE=ON -DCONCORD_BUILD_BENCH=OFF \
	  -DBUILD_SHARED_LIBS=ON
	CONCORD_TEST_DEVICES=$(ASAN_DEVICES) cmake --build build-asan -j $(JOBS)
	cd build-asan && CONCORD_TEST_DEVICES=$(ASAN_DEVICES) $(ASAN_ENV) ctest --output-on-failure -j $(JOBS)

# The concurrency tests under ThreadSanitizer.
tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Sanitize -DCONCORD_TSAN=ON -DCONCORD_BUILD_BENCH=OFF
	cmake --build build-tsan -j $(JOBS)
	# OpenMP regions run on the calling thread (libgomp is not instrumented); the
	# test's own 8 threads still run concord concurrently. tsan.supp names only
	# third-party frames (libgomp, OpenBLAS, PoCL). The two thread-count tests
	# excluded set 2-3 OpenMP threads themselves, whose barriers TSan cannot see.
	cd build-tsan && OMP_NUM_THREADS=1 TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=1" \
	  ctest --output-on-failure -j $(JOBS) -R 'Concurren|Thread' -E 'ThreadCountDoesNotChangeBits|SameBitsOnOneAndTwoThreads'

# Each libFuzzer target for FUZZ_SECONDS (default 300) from the committed seed corpus (fuzz/).
fuzz: deps
	bash tools/fuzz.sh

bench: build python
	@bash tools/install-deps.sh $(BENCH_PACKAGES)
	$(BUILD)/concord bench
	$(PYENV)/bin/python python/bench/overhead.py

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz build-spirv-cache
