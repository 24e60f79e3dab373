# sutra-engine image: the `full` flavour compiled in the official Deno image,
# then copied into an empty (scratch) image with only what the binary needs.
#
#   docker build -t sutra-engine .
#   docker run -p 8080:8080 -v sutra-data:/data sutra-engine
#
# See docs/install.md.

FROM denoland/deno:2.9.6 AS build
ENV DENO_NO_UPDATE_CHECK=1
WORKDIR /src
COPY . .
# npm dependencies exactly as deno.lock pins them.
RUN deno install --frozen
# The listen address and the database directory are baked into the binary's permissions.
RUN deno task compile --flavour full --out /out --listen 0.0.0.0:8080 --data-dir /data/engine-db
# The final image's file tree: the binary, the shared libraries it links (the glibc loader,
# libc, libm, libgcc_s, libdl, libpthread, librt — whatever ldd lists), CA certificates,
# a non-root user and the data volume.
RUN set -eu; \
    mkdir -p /rootfs/etc/ssl/certs /rootfs/data /rootfs/tmp; \
    cp /out/sutra-engine /rootfs/sutra-engine; \
    for lib in $(ldd /out/sutra-engine | grep -o '/[^ ]*'); do cp --parents -L "$lib" /rootfs; done; \
    cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/ca-certificates.crt; \
    echo 'sutra:x:10001:10001:sutra:/data:/sutra-engine' > /rootfs/etc/passwd; \
    echo 'sutra:x:10001:' > /rootfs/etc/group; \
    chown 10001:10001 /rootfs/data; \
    chmod 1777 /rootfs/tmp

FROM scratch
COPY --from=build /rootfs/ /
ENV SUTRA_HTTP_HOST=0.0.0.0 \
    SUTRA_HTTP_PORT=8080 \
    SUTRA_DATASOURCE_EMBEDDED_DIR=/data/engine-db \
    DENO_TLS_CA_STORE=system \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 10001:10001
WORKDIR /data
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["/sutra-engine"]
