# brados — developer entry points. Each target installs the system packages it needs
# (scripts/ensure-deps.sh, with the group of that kind of work).
SWIFT ?= swift
ARGS ?= --help
PREFIX ?= /usr/local
# SwiftPM scratch path of the release build that `install` uses.
SCRATCH ?= .build

.PHONY: deps pins reproducible repo build release run test server clean completions man readme unicode-tables install uninstall package check-package bench bench-smoke reliability reliability-smoke

deps:
	@scripts/ensure-deps.sh

## make pins — checks that the Swift packages resolve to Package.pins.json's versions (build,
## release and test run it first; scripts/pins.py --write after moving one on purpose)
pins:
	@SWIFT=$(SWIFT) scripts/pins.py --scratch $(SCRATCH)

build: deps pins
	$(SWIFT) build

## make release [PRODUCT=brados] — a release binary as it ships: the Swift runtime linked statically
## (~30% faster start-up), no $ORIGIN run path (it loads no library from beside itself). The one
## place these flags are written: bench/ and reliability/ build through it (PRODUCT= builds all).
PRODUCT ?= brados
## The source folder is "." in every path the compilers write into it (make reproducible).
## Concrete type metadata through accessor functions, not mangled names the runtime decodes at
## first use: each such decode checks the type's generic requirements by scanning every
## conformance record in the binary (bench/RESULTS.md, start-up).
release: deps pins
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --scratch-path $(SCRATCH) $(if $(PRODUCT),--product $(PRODUCT)) \
		-Xswiftc -file-prefix-map -Xswiftc $(CURDIR)=. -Xcc -ffile-prefix-map=$(CURDIR)=. \
		-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors

## make package — dist/brados_<version>_<arch>.deb and dist/brados-<version>-linux-<arch>.tar.gz (+ .sha256)
package: release
	@scripts/ensure-deps.sh package
	packaging/package.sh $(SCRATCH)

## make reproducible — make package twice, the artifacts compared byte for byte (BINARY=1: also a
## second release build in another folder, the binaries compared; ~10 more minutes)
reproducible: package
	SCRATCH=$(SCRATCH) packaging/reproducible.sh $(if $(BINARY),--binary)

## make repo — the signed apt repository in repo/ from dist/'s .deb (kept: earlier versions stay
## in its pool), and dist/'s tarball signed; BRADOS_REPO_KEYS names the secret key file(s)
repo: package
	REPO=$(or $(REPO),repo) packaging/repo.sh

## make check-package — installs both artifacts in a clean Debian root and uses them as a new user would (root)
check-package: package
	SCRATCH=$(SCRATCH) packaging/check-package.sh

## make run ARGS='mealplan show' — runs brados (the embedded demo backend when no server is set)
run: build
	@./.build/debug/brados $(ARGS)

## make test — unit, server and end-to-end tests (the end-to-end ones run the built binaries)
test: deps pins
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## make bench — the whole benchmark suite on release binaries; writes bench/RESULTS.md
bench:
	@scripts/ensure-deps.sh bench
	python3 bench/run.py --build-dir $(SCRATCH)

## make bench-smoke — a seconds-long run of the suite on the debug build (checks the harness)
bench-smoke:
	@scripts/ensure-deps.sh bench
	python3 bench/run.py --smoke

## make reliability — the reliability and security suite, full size; writes reliability/RESULTS.md
reliability:
	@scripts/ensure-deps.sh reliability
	python3 reliability/run.py

## make reliability-smoke — every reliability suite, smaller (a few minutes; CI runs it)
reliability-smoke:
	@scripts/ensure-deps.sh reliability
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

## make readme — regenerate README.md's generated parts (the exit-code table) and docs/commands.md's --json field lists (contract/json/)
readme: deps
	scripts/generate-readme.sh
	python3 scripts/generate-json-docs.py

## make unicode-tables — regenerate Sources/BradOSTerminal/UnicodeTables.swift (widths, kinsoku) from Debian's unicode-data
unicode-tables:
	python3 scripts/generate-unicode-tables.py

## make install PREFIX=~/.local — the stripped release binary, completions, man page, systemd user
## units and docs in their standard places under PREFIX (the tarball's layout: packaging/stage.sh)
install: release
	packaging/stage.sh prefix $(SCRATCH)/release/brados $(DESTDIR)$(PREFIX) $(PREFIX)

## make uninstall PREFIX=~/.local — removes what install put there
uninstall:
	packaging/stage.sh --list prefix | while IFS= read -r file; do rm -f "$(DESTDIR)$(PREFIX)/$$file"; done
	rmdir "$(DESTDIR)$(PREFIX)/share/doc/brados" 2>/dev/null || true

clean:
	rm -rf .build dist
