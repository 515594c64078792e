# The front door: make (release build), make test, make bench, make fuzz, make format.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps test test-release test-asan test-tsan bench fuzz format clean install install-files

# where `make install` puts quarry: $(DESTDIR)$(PREFIX)/bin/quarry, man pages in
# share/man/man1, the documentation (docs/*.md) in share/doc/quarry, completions in
# share/bash-completion and share/zsh
PREFIX ?= /usr/local
DESTDIR ?=

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

# the MCP server's tests under ThreadSanitizer (clang): its workers, sessions and
# connections run on many threads; a race report ends the process that found it
# (halt_on_error), and any report left in tsan-reports/ fails the target, even one from a
# process whose test did not notice. Not part of `make test`.
TSAN_TESTS = ^(unit/test_mcp|cli/06_mcp|cli/07_mcp_protocol|cli/28_mcp_http|cli/32_mcp_cancel|cli/33_mcp_http_faults)$$
test-tsan:
	@sh scripts/deps.sh --test
	CC=clang cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DQUARRY_TSAN=ON >/dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target quarry test_mcp
	rm -rf $(TSAN_BUILD)/tsan-reports && mkdir -p $(TSAN_BUILD)/tsan-reports
	cd $(TSAN_BUILD) && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 log_path=$(abspath $(TSAN_BUILD))/tsan-reports/race" \
		ctest --output-on-failure -R '$(TSAN_TESTS)'
	@if ls $(TSAN_BUILD)/tsan-reports/race.* >/dev/null 2>&1; then \
		echo "ThreadSanitizer reports:"; cat $(TSAN_BUILD)/tsan-reports/race.*; exit 1; fi

install: all
	$(MAKE) install-files

# what install does once quarry is built (QUARRY: the binary to install)
QUARRY ?= $(BUILD)/quarry
install-files:
	sh scripts/install.sh $(QUARRY) "$(DESTDIR)$(PREFIX)" "$(PREFIX)"

bench: all
	@sh scripts/deps.sh --bench
	bash bench/startup/run.sh $(BUILD)/quarry
	bash bench/lisp/run.sh $(BUILD)/quarry
	bash bench/git/run.sh $(BUILD)/quarry
	bash bench/ask/run.sh $(BUILD)/quarry
	bash bench/memory/run.sh $(BUILD)/quarry
	bash bench/memory/write.sh $(BUILD)/quarry
	bash bench/code/run.sh $(BUILD)/quarry
	bash bench/sparql/run.sh $(BUILD)/quarry
	bash bench/dwim/run.sh $(BUILD)/quarry
	bash bench/flow/run.sh $(BUILD)/quarry
	bash bench/cancel/run.sh $(BUILD)/quarry

# libFuzzer: each harness runs for FUZZ_SECONDS (default 300, the issue's 5 minutes), on
# inputs up to FUZZ_MAX_LEN bytes: long enough for prefix forms nested 100,000 deep (the
# seeds of tests/fuzz/gen_seeds.py), which libFuzzer's default (the longest seed) would not
# reach. One harness at a time; every harness runs even when one fails, the failures are
# listed at the end and make exits nonzero. What a run grows goes to FUZZ_WORK/NAME (not
# the repository's seed corpus, which is only read); crash/leak/timeout/oom inputs go to
# FUZZ_WORK/NAME-*. FUZZERS picks a subset (e.g. FUZZERS="reader eval").
FUZZ_SECONDS ?= 300
FUZZ_MAX_LEN ?= 200000
FUZZ_WORK ?= $(FUZZ_BUILD)/fuzz-work
FUZZERS ?=
fuzz:
	@sh scripts/deps.sh --test
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DQUARRY_FUZZ=ON -DQUARRY_SANITIZE=ON >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@failed=""; \
	if [ -n "$(FUZZERS)" ]; then list=""; for n in $(FUZZERS); do list="$$list $(FUZZ_BUILD)/fuzz_$$n"; done; \
	else list=$$(ls $(FUZZ_BUILD)/fuzz_* | grep -v '_replay$$'); fi; \
	for f in $$list; do \
		name=$$(basename $$f | sed 's/^fuzz_//'); \
		mkdir -p $(FUZZ_WORK)/$$name; \
		echo "== fuzz $$name: $(FUZZ_SECONDS) s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) -timeout=5 -rss_limit_mb=2048 \
			-artifact_prefix=$(FUZZ_WORK)/$$name- $(FUZZ_WORK)/$$name tests/fuzz/corpus/$$name \
			|| failed="$$failed $$name"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed (inputs in $(FUZZ_WORK))"; exit 1; fi; \
	echo "fuzz: all harnesses ran $(FUZZ_SECONDS) s with no finding"

format:
	clang-format -i include/quarry/*.h src/*/*.c src/*/*.h tests/unit/*.c tests/fuzz/*.c

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
