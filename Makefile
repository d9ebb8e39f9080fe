# brados — developer entry points. Each target installs the system packages it needs.
SWIFT ?= swift
ARGS ?= --help
PREFIX ?= /usr/local

.PHONY: deps build release run test server clean

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

## make release — release binaries with the Swift runtime linked statically (~30% faster start-up)
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

## make run ARGS='mealplan show' — runs brados (the embedded demo backend when no server is set)
run: build
	@./.build/debug/brados $(ARGS)

## make test — unit, server and end-to-end tests (the end-to-end ones run the built binaries)
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## make server — a reference server on 127.0.0.1:8080 with admin routes, data in .build/server-data
server: build
	./.build/debug/brados-server --port 8080 --data-dir .build/server-data --seed demo --admin

clean:
	rm -rf .build
