# The front door: make (release build), make test, make bench, make fuzz, make format.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps test test-release test-asan bench fuzz format clean

all: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@sh scripts/deps.sh

test: test-release test-asan

test-release: all
	@sh scripts/deps.sh --test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer (clang)
test-asan:
	@sh scripts/deps.sh --test
	CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DQUARRY_SANITIZE=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)

bench: all
	bash bench/lisp/run.sh $(BUILD)/quarry
	bash bench/git/run.sh $(BUILD)/quarry
	bash bench/ask/run.sh $(BUILD)/quarry
	bash bench/memory/run.sh $(BUILD)/quarry
	bash bench/code/run.sh $(BUILD)/quarry
	bash bench/sparql/run.sh $(BUILD)/quarry

# libFuzzer: each harness runs for FUZZ_SECONDS (default 60), on inputs up to FUZZ_MAX_LEN
# bytes: long enough for prefix forms nested 100,000 deep (the seeds of
# tests/fuzz/gen_seeds.py), which libFuzzer's default (the longest seed) would not reach
FUZZ_SECONDS ?= 60
FUZZ_MAX_LEN ?= 200000
fuzz:
	@sh scripts/deps.sh --test
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DQUARRY_FUZZ=ON -DQUARRY_SANITIZE=ON >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	for f in $(FUZZ_BUILD)/fuzz_*; do \
		name=$$(basename $$f | sed 's/^fuzz_//'); \
		mkdir -p tests/fuzz/corpus/$$name; \
		$$f -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) -timeout=5 -rss_limit_mb=2048 \
			tests/fuzz/corpus/$$name || exit 1; \
	done

format:
	clang-format -i include/quarry/*.h src/*/*.c src/*/*.h tests/unit/*.c tests/fuzz/*.c

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
