# infermeter's container image: the bundle (its entry file and the folder of modules it loads on use) on Deno, on a
# slim glibc base, as a non-root user, fit for a read-only root file system (everything it writes goes to /tmp).
# The shard pods of `kube run` use its entrypoint.
#
#   deno task bundle && docker build -t infermeter:0.1.0 .
#
# scripts/image/build_oci.ts builds the same image offline, with no daemon, registry or base image.
ARG DENO_VERSION=2.9.6
FROM denoland/deno:bin-${DENO_VERSION} AS deno

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=deno /deno /usr/local/bin/deno
COPY dist/infermeter.js /app/infermeter.js
COPY dist/infermeter/ /app/infermeter/
ENV HOME=/tmp TMPDIR=/tmp DENO_DIR=/tmp/deno DENO_NO_UPDATE_CHECK=1
USER 65532:65532
WORKDIR /tmp
LABEL org.opencontainers.image.title="infermeter" \
      org.opencontainers.image.description="LLM inference benchmark client (AIPerf-compatible)"
ENTRYPOINT ["/usr/local/bin/deno", "run", "-A", "--v8-flags=--min-semi-space-size=16,--max-semi-space-size=16,--initial-old-space-size=128", "/app/infermeter.js"]
CMD ["--help"]
