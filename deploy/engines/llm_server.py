"""Serves a GGUF model on loopback through xllamacpp, llama.cpp's
OpenAI-compatible HTTP server, until it is stopped.

usage: llm_server.py MODEL_PATH PORT ALIAS [PARALLEL] [CTX]
"""
import signal
import sys
import time

import xllamacpp


def main() -> None:
    path, port, alias = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    parallel = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    ctx = int(sys.argv[5]) if len(sys.argv) > 5 else 8192
    p = xllamacpp.CommonParams()
    p.model.path = path
    p.model_alias = {alias}
    p.hostnames = ["127.0.0.1"]
    p.port = port
    p.n_parallel = parallel
    p.n_ctx = ctx
    server = xllamacpp.Server(p)
    print("listening", server.listening_address, flush=True)
    # llama.cpp's server installs handlers of its own; these replace them,
    # and the loop wakes to see the flag they set.
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    signal.signal(signal.SIGINT, lambda *_: stop.append(True))
    while not stop:
        time.sleep(0.2)


if __name__ == "__main__":
    main()
