# brados — developer entry points. Each target installs the system packages it needs.
SWIFT ?= swift
ARGS ?= --help
PREFIX ?= /usr/local
# SwiftPM scratch path of the release build that `install` uses.
SCRATCH ?= .build

.PHONY: deps build release run test server clean completions man install uninstall bench bench-smoke reliability reliability-smoke

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

## make release — release binaries with the Swift runtime linked statically (~30% faster start-up)
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(SCRATCH) --product brados

## make run ARGS='mealplan show' — runs brados (the embedded demo backend when no server is set)
run: build
	@./.build/debug/brados $(ARGS)

## make test — unit, server and end-to-end tests (the end-to-end ones run the built binaries)
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## make bench — the whole benchmark suite on release binaries; writes bench/RESULTS.md
bench: deps
	python3 bench/run.py --build-dir $(SCRATCH)

## make bench-smoke — a seconds-long run of the suite on the debug build (checks the harness)
bench-smoke: deps
	python3 bench/run.py --smoke

## make reliability — the reliability and security suite, full size; writes reliability/RESULTS.md
reliability: deps
	python3 reliability/run.py

## make reliability-smoke — every reliability suite, smaller (a few minutes; CI runs it)
reliability-smoke: deps
	python3 reliability/run.py --smoke

## make server — a reference server on 127.0.0.1:8080 with admin routes, data in .build/server-data
server: build
	./.build/debug/brados-server --port 8080 --data-dir .build/server-data --seed demo --admin

## make completions — regenerate completions/ from the command tree (a test checks they are fresh)
completions: build
	./.build/debug/brados --generate-completion-script bash > completions/brados.bash
	./.build/debug/brados --generate-completion-script zsh > completions/_brados
	./.build/debug/brados --generate-completion-script fish > completions/brados.fish

## make man — regenerate man/brados.1 (the argument-parser manual plugin, offline, + man/sections.mdoc)
man: deps
	scripts/generate-man.sh

## make install PREFIX=~/.local — the release binary, completions and man page in their standard places
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(SCRATCH)/release/brados $(DESTDIR)$(PREFIX)/bin/brados
	install -m 644 completions/brados.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/brados
	install -m 644 completions/_brados $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_brados
	install -m 644 completions/brados.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/brados.fish
	if [ -f man/brados.1 ]; then install -d $(DESTDIR)$(PREFIX)/share/man/man1 && install -m 644 man/brados.1 $(DESTDIR)$(PREFIX)/share/man/man1/brados.1; fi

## make uninstall PREFIX=~/.local — removes what install put there
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/brados $(DESTDIR)$(PREFIX)/share/bash-completion/completions/brados \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_brados $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/brados.fish \
		$(DESTDIR)$(PREFIX)/share/man/man1/brados.1

clean:
	rm -rf .build
