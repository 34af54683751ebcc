#!/bin/sh
# The images' entry point: `mixforge serve` with the image's settings, then the arguments
# given to `docker run IMAGE ...`. exec: mixforge is the container's process 1 and gets the
# SIGTERM of `docker stop` itself.
#   MIXFORGE_PORT    port to listen on (default 8080; the HEALTHCHECK uses it too)
#   MIXFORGE_DEVICE  where the evaluator runs (serve --device; docker/Dockerfile.cuda sets
#                    "auto"). A mixforge whose serve has no --device option is started
#                    without it, saying so, so an image is never left unable to start.
set -eu
set -- --bind 0.0.0.0 --port "${MIXFORGE_PORT:-8080}" --data /data --token-file /data/token "$@"
if [ -n "${MIXFORGE_DEVICE:-}" ]; then
  if mixforge serve --help 2>/dev/null | grep -q -e '--device'; then
    set -- "$@" --device "$MIXFORGE_DEVICE"
  else
    echo "mixforge-entrypoint: MIXFORGE_DEVICE=$MIXFORGE_DEVICE, but this mixforge's serve has no --device option: evaluating on the CPU" >&2
  fi
fi
exec mixforge serve "$@"
