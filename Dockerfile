# jdwpx in a container image: a JDK whose own debug agent (lib/libjdwp.so) is jdwpx,
# jdwpx's command-line tools, and the agent alone at /opt/jdwpx/lib/libjdwpx.so for
# `COPY --from=` into any other JDK image (docs/containers.md).
#
#   podman build --pull=never --build-arg JDWPX_VERSION="$(git describe --always --dirty)" -t jdwpx .
#   (or docker build with the same argument)
#
# The agent is built against a glibc 2.31 sysroot (scripts/setup.sh makes it), so the
# copied library loads into Debian 11+, Ubuntu 20.04+, UBI 9 and Amazon Linux 2023 images.
ARG BASE=docker.io/library/debian:bookworm-slim

# ---- build: the project's own setup script and build ----
FROM ${BASE} AS build
# Set to a directory of the build context holding an already built and stripped
# libjdwpx.so and tools (integration/containers/ does, to keep the tests' time small).
ARG JDWPX_PREBUILT=
# The version the agent names (its traces' header): the context has no git history,
# so pass it: --build-arg JDWPX_VERSION=$(git describe --always --dirty).
ARG JDWPX_VERSION=
WORKDIR /src
COPY . .
RUN set -eu; mkdir -p /out/lib /out/bin; \
    if [ -n "$JDWPX_PREBUILT" ]; then \
      cp "$JDWPX_PREBUILT/libjdwpx.so" /out/lib/; \
      find "$JDWPX_PREBUILT" -maxdepth 1 -type f -perm -u+x -name 'jdwpx-*' -exec cp {} /out/bin/ \; ; \
    else \
      JDWPX_SETUP_NO_CONTAINERS=1 scripts/setup.sh; \
      cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJDWPX_VERSION="$JDWPX_VERSION"; \
      cmake --build /build --target jdwpx $(sed -n 's/^add_executable(\(jdwpx-[a-z-]*\) .*/\1/p' tools/CMakeLists.txt); \
      strip --strip-unneeded -o /out/lib/libjdwpx.so /build/backend/libjdwpx.so; \
      for tool in /build/tools/jdwpx-*; do \
        if [ -f "$tool" ] && [ -x "$tool" ]; then strip -o "/out/bin/${tool##*/}" "$tool"; fi; \
      done; \
    fi; \
    cp scripts/install-into-jdk.sh /out/bin/jdwpx-install-into-jdk

# ---- runtime: a JDK with jdwpx as its libjdwp.so; no compiler, no build tree ----
FROM ${BASE}
# Slim images drop man pages; the JDK's packages still expect the directory.
RUN set -eu; mkdir -p /usr/share/man/man1; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jdk-headless; \
    rm -rf /var/lib/apt/lists/*; \
    ln -s "$(dirname "$(dirname "$(readlink -f /usr/bin/javac)")")" /opt/jdk
ENV JAVA_HOME=/opt/jdk PATH=/opt/jdwpx/bin:/opt/jdk/bin:$PATH
COPY --from=build /out/lib/libjdwpx.so /opt/jdwpx/lib/libjdwpx.so
COPY --from=build /out/bin/ /opt/jdwpx/bin/
# -agentlib:jdwp, -Xrunjdwp and JAVA_TOOL_OPTIONS now load jdwpx; the JDK's own agent
# stays beside it as lib/libjdwp.so.stock (jdwpx-install-into-jdk --restore /opt/jdk).
RUN jdwpx-install-into-jdk "$(readlink -f /opt/jdk)" /opt/jdwpx/lib/libjdwpx.so
