# aqlstore — the targets people expect. `make test` is what CI runs.
GO      ?= go
BIN     := bin/aqlstore
BENCHBIN := bin/aqlbench
DIR     ?= ./aqlstore-data
FUZZTIME ?= 10s
FUZZMINTIME ?= 5s
PKGS    := ./...

.PHONY: all build build-bench test test-long cluster chaos cluster-bench crashtest vectors race fuzz fuzz-long bench bench-full bench-micro bench-point bench-1m lint staticcheck demo serve loadtest loadtest-corpus bench-put clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/aqlstore

## build-bench: the benchmark and load-test command (links the SQL drivers
## and other engines the comparison needs; aqlstore itself links none).
build-bench:
	$(GO) build -o $(BENCHBIN) ./cmd/aqlbench

## test: vet, every test, then the public-vector counts (when ../shared is present).
test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 20m $(PKGS)
	@$(MAKE) --no-print-directory vectors

## vectors: how many public test vectors each vector test checked.
vectors:
	@$(GO) test -count=1 -v -run 'JSONTestSuite|JCS|Vector|PointerRFC|PointerJSON|Shared' ./canon/ ./query/... 2>&1 \
	  | grep -E '^\s+\S+_test.go:[0-9]+: |SKIP' || true

## test-long: the differential planner test, the store crash test and the isolation property test, longer.
test-long:
	$(GO) test -count=1 -timeout 60m -run 'PlannerEqualsFullScan|BitmapMerge' ./query/ ./store/ -rapid.checks=5000
	AQLSTORE_CRASH_CYCLES=100 $(GO) test -count=1 -timeout 60m -run Crash ./store/
	AQLSTORE_ISOLATION_CHECKS=300 $(GO) test -count=1 -timeout 60m -run TenantIsolation ./server/
	AQLSTORE_CLUSTER_ROUNDS=25 $(GO) test -count=1 -timeout 60m -run ClusterEqualsOneStore ./cluster/

## crashtest: the crash harness, 300 SIGKILL cycles and 300 power cuts (about 6 minutes).
CRASH_CYCLES ?= 300
crashtest:
	AQLSTORE_CRASH_CYCLES=$(CRASH_CYCLES) $(GO) test -count=1 -timeout 30m -v -run '^TestCrash' ./crashtest/

race:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

## fuzz: every native fuzz target for $(FUZZTIME) each (fuzz-long: 5 minutes
## each). A target fails the run when it writes a failing input to its
## testdata/fuzz (plain `go test`, and so `make test`, replays those). A failure
## that writes none and only says "context deadline exceeded" is Go 1.26's
## fuzz-coordinator race at the -fuzztime deadline (go.dev/issue/75804): that
## target runs once more.
FUZZDIRS = $(shell grep -l '^func Fuzz' $$(find . -name '*_test.go' -not -path './bench/results/*') | xargs -n1 dirname | sort -u)
fuzz:
	@for dir in $(FUZZDIRS); do \
	  for f in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$dir/*_test.go); do \
	    for try in 1 2; do \
	      echo "fuzz $$dir $$f"; out=$$(mktemp); \
	      if $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) $$dir >$$out 2>&1; then \
	        grep 'execs:' $$out | tail -n 1; rm -f $$out; break; \
	      fi; \
	      cat $$out; \
	      if grep -q 'Failing input written to' $$out || ! grep -q 'context deadline exceeded' $$out || [ $$try = 2 ]; then \
	        rm -f $$out; exit 1; \
	      fi; \
	      rm -f $$out; echo "fuzz $$dir $$f: no failing input, only the -fuzztime race (go.dev/issue/75804): once more"; \
	    done; \
	  done; \
	done

fuzz-long:
	$(MAKE) fuzz FUZZTIME=5m

## bench: the comparison harness on 100,000 manifests (38 minutes on a busy 2-core machine): aqlstore
## against its own full scan, SQLite, bleve, DuckDB and PostgreSQL (installed with
## apt-get when missing and run as root, else skipped), every answer checked before
## timing; an engine that cannot load is skipped with a message.
## Writes REPORT.md, results.json and charts to $(BENCH_OUT).
BENCH_OUT   ?= bench/results/100k
BENCH_FLAGS ?=
bench: build-bench
	$(BENCHBIN) bench --docs 100000 --out $(BENCH_OUT) $(BENCH_FLAGS)

## bench-full: the same on 1,000,000 manifests (45 minutes to 2 hours, 15 GB of scratch disk).
bench-full: build-bench
	$(BENCHBIN) bench --docs 1000000 --budget 3 --out bench/results/1m $(BENCH_FLAGS)

## bench-micro: the Go micro-benchmarks of every package.
bench-micro:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./canon/... ./store/... ./index/... ./query/... ./bench/...

## bench-point: server CPU per point query through the real handler, and point
## reads against cursors; AQLSTORE_BENCH_DIR=<a copy of a corpus>
## AQLSTORE_BENCH_DOCS=<its size> for a large one.
bench-point:
	$(GO) test -run '^$$' -bench 'PointQuery' -benchtime 20000x ./server/
	$(GO) test -run '^$$' -bench 'FetchFew' -benchtime 5000x ./store/

## bench-1m: the planner against the full scan on 1,000,000 generated manifests
## (the corpus is built once into $(BENCH_DIR), about 1.5 GB, and reused), the
## reopen time and index share, and indexed durable ingest.
BENCH_DIR  ?= $(CURDIR)/bench/results/tmp/corpus-1m
BENCH_DOCS ?= 1000000
bench-1m:
	AQLSTORE_BENCH_DOCS=$(BENCH_DOCS) AQLSTORE_BENCH_DIR=$(BENCH_DIR) \
	  $(GO) test -run '^$$' -bench 'Resolve|Open' -benchtime 10s -timeout 3h ./query/
	$(GO) test -run '^$$' -bench 'IndexedPut/batch=1000$$|IndexedLoad' -benchtime 100000x -benchmem ./index/
	$(GO) test -run '^$$' -bench 'IndexedPut/batch=1$$' -benchtime 10000x -benchmem ./index/

## lint: go vet, staticcheck and the import-direction test.
lint: staticcheck
	$(GO) vet $(PKGS)
	$$($(GO) env GOPATH)/bin/staticcheck $(PKGS)
	$(GO) test -count=1 -run TestLayering .

staticcheck:
	@test -x $$($(GO) env GOPATH)/bin/staticcheck || $(GO) install honnef.co/go/tools/cmd/staticcheck@latest

## demo: a store in $(DIR) with a generated corpus and demo candidates, then a query.
demo: build
	$(BIN) --dir $(DIR) init
	$(BIN) gen --kind manifest -n 2000 --seed 1 | $(BIN) --dir $(DIR) put -
	$(BIN) gen --kind candidate -n 2000 --seed 1 | $(BIN) --dir $(DIR) put -
	$(BIN) --dir $(DIR) put testdata/demo/candidates.json
	$(BIN) --dir $(DIR) stats
	$(BIN) --dir $(DIR) verify
	$(BIN) --dir $(DIR) query --max-rejected 3 testdata/demo/intent.json > $(DIR)/demo-response.json
	$(BIN) --dir $(DIR) verify-response $(DIR)/demo-response.json
	@echo "the signed response is in $(DIR)/demo-response.json"

## serve: the HTTP server on $(ADDR) over $(DIR), created with a demo corpus on
## first run. Writes need a bearer token: on first run $(AUTH) is written with
## a random one for the demo tenant, and every run prints it as `export T=…`.
ADDR        ?= 127.0.0.1:8080
AUTH        ?= ./aqlstore-auth.json
DEMO_TENANT ?= did:web:demo-tenant.example
SERVE_FLAGS ?=
serve: build
	@if [ ! -e $(AUTH) ]; then \
	  tok=$$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n'); \
	  umask 077; printf '{"tokens": {"%s": "$(DEMO_TENANT)"}}\n' "$$tok" > $(AUTH); \
	  echo "wrote $(AUTH): one bearer token for $(DEMO_TENANT)"; \
	fi
	@tok=$$(sed -n 's/.*"tokens": {"\([0-9a-f]*\)".*/\1/p' $(AUTH)); \
	  if [ -n "$$tok" ]; then echo "writes as $(DEMO_TENANT), in another shell:  export T=$$tok"; fi
	$(BIN) --dir $(DIR) serve --addr $(ADDR) --auth $(AUTH) $(SERVE_FLAGS)

## loadtest: QPS, p50/p95/p99 and CPU per query against a running `make serve` (loopback only, bounded).
## For a measurement, start the server with `make serve SERVE_FLAGS=--rate-limit=0`
## (on a large store add `--cache <its size> --prewarm`: README, Prewarm).
LOADTEST_FLAGS ?= --duration 10s --requests 1000000
loadtest: build-bench
	$(BENCHBIN) loadtest --url http://$(ADDR) $(LOADTEST_FLAGS)

## loadtest-corpus: the 1,000,000 generated manifests the load test is measured
## on, bulk loaded into $(LOADTEST_DIR) (put ingests sstables, so nothing is
## left to compact; about 1.1 GB;
## built once: remove the directory to build it again). Then, in two shells:
##   make serve DIR=$(LOADTEST_DIR) SERVE_FLAGS="--rate-limit=0 --cache 8GiB --prewarm"
##   make loadtest LOADTEST_FLAGS="--lookups 1000000 --concurrency 4 --duration 15s --requests 1000000"
LOADTEST_DIR  ?= $(CURDIR)/bench/results/tmp/loadtest-1m
LOADTEST_DOCS ?= 1000000
loadtest-corpus: build
	@if [ -e $(LOADTEST_DIR)/.complete ]; then echo "$(LOADTEST_DIR) holds the corpus already"; exit 0; fi; \
	set -e; rm -rf $(LOADTEST_DIR); \
	$(BIN) --dir $(LOADTEST_DIR) init; \
	$(BIN) gen --kind manifest -n $(LOADTEST_DOCS) --seed 1 | $(BIN) --dir $(LOADTEST_DIR) put -; \
	touch $(LOADTEST_DIR)/.complete

## bench-put: `aqlstore put` of $(PUT_DOCS) generated manifests from an NDJSON
## file (written once to $(PUT_FILE), 2.8 GB at a million) into a new store
## in $(PUT_DIR): put prints its documents/s; then the time of a command
## run right after the load (the store's open, with nothing to compact).
PUT_DOCS ?= 1000000
PUT_FILE ?= $(CURDIR)/bench/results/tmp/manifests-$(PUT_DOCS).ndjson
PUT_DIR  ?= $(CURDIR)/bench/results/tmp/put-$(PUT_DOCS)
bench-put: build
	@mkdir -p $(dir $(PUT_FILE))
	@test -s $(PUT_FILE) || $(BIN) gen --kind manifest -n $(PUT_DOCS) --seed 1 > $(PUT_FILE)
	@rm -rf $(PUT_DIR); $(BIN) --dir $(PUT_DIR) init >/dev/null
	$(BIN) --dir $(PUT_DIR) put $(PUT_FILE)
	@echo "open and list one document right after the load:"
	@bash -c 'time $(BIN) --dir $(PUT_DIR) ls --limit 1 >/dev/null'
	@du -sk $(PUT_DIR)

## cluster: three NATS JetStream servers (ports 4222-4224) and three aqlstore nodes
## (http://127.0.0.1:8081-8083) on loopback: 3 shards, streams with 3 replicas,
## every shard served by two nodes. Runs in the foreground until Ctrl-C; state in
## $(CLUSTER_DIR). Installs nats-server with go install when it is missing.
CLUSTER_DIR ?= ./aqlstore-cluster
NATS_SERVER ?= $(shell command -v nats-server 2>/dev/null || echo $$($(GO) env GOPATH)/bin/nats-server)
cluster: build
	@test -x "$(NATS_SERVER)" || $(GO) install github.com/nats-io/nats-server/v2@v2.15.2
	@mkdir -p $(CLUSTER_DIR); pids=""; \
	trap 'kill $$pids 2>/dev/null; wait' EXIT INT TERM; \
	routes=nats://127.0.0.1:6222,nats://127.0.0.1:6223,nats://127.0.0.1:6224; \
	for i in 1 2 3; do \
	  $(NATS_SERVER) -n nats$$i -a 127.0.0.1 -p $$((4221+i)) -js -sd $(CLUSTER_DIR)/nats$$i \
	    --cluster_name aqlstore --cluster nats://127.0.0.1:$$((6221+i)) --routes $$routes \
	    >$(CLUSTER_DIR)/nats$$i.log 2>&1 & pids="$$pids $$!"; \
	done; \
	for i in 1 2 3; do \
	  $(BIN) --dir $(CLUSTER_DIR)/node$$i serve --addr 127.0.0.1:$$((8080+i)) \
	    --cluster nats://127.0.0.1:$$((4221+i)) --node node$$i --shards 3 --replicas 3 \
	    --serve-shards $$((i-1)),$$((i%3)) --cluster-key $(CLUSTER_DIR)/key.jwk \
	    2>$(CLUSTER_DIR)/node$$i.log & pids="$$pids $$!"; \
	  while [ ! -s $(CLUSTER_DIR)/key.jwk ]; do sleep 0.1; done; \
	done; \
	echo "put:   curl -s http://127.0.0.1:8081/documents -d '{\"offer_id\":\"o1\",\"price\":\"9.50\"}'"; \
	echo "query: curl -s http://127.0.0.1:8082/oap/intent -d @testdata/cluster/intent.json   (any node; logs in $(CLUSTER_DIR))"; \
	wait

## chaos: 50 cycles of SIGKILL of a random NATS server or aqlstore node (each a
## process) during concurrent writes and queries; then no acknowledged write is
## lost, none unacknowledged appears, and every shard's replicas hold the same documents.
CHAOS_CYCLES ?= 50
chaos:
	AQLSTORE_CHAOS_CYCLES=$(CHAOS_CYCLES) $(GO) test -count=1 -timeout 30m -v -run '^TestChaos$$' ./cluster/

## cluster-bench: ingest and selective query figures with 1, 2 and 4 shards, each
## node an `aqlstore serve --cluster` process on one in-process NATS server, beside
## one `aqlstore serve` over a local store (docs/cluster.md). Stores are temporary.
SCALE_DOCS    ?= 20000
SCALE_QUERIES ?= 1000
cluster-bench: build
	AQLSTORE_SCALE_DOCS=$(SCALE_DOCS) AQLSTORE_SCALE_QUERIES=$(SCALE_QUERIES) AQLSTORE_BIN=$(CURDIR)/$(BIN) \
	  $(GO) test -count=1 -timeout 60m -v -run '^TestClusterScaling$$' ./cluster/

clean:
	rm -rf bin $(DIR) $(AUTH)
