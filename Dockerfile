# Beekon Fleet: build with Swift on Debian bookworm, run on a slim Debian with only the C
# libraries the binary links: the four it is built on, and libxml2, which Foundation's
# XMLParser (the GPX route reader) needs; curl for the compose file's health checks.
# `docker compose up fleet` builds this image once for both services. The Swift version is the
# one CI tests (README, "What it needs"); checks/compose/run.sh builds the runtime stage below
# as it stands, with the binary built on the host in place of the `build` stage.

FROM swift:6.3.1-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libsqlite3-dev zlib1g-dev libcurl4-openssl-dev libmicrohttpd-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so a source change does not fetch them again.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
# The Swift runtime is linked in, so the runtime image needs no Swift.
RUN swift build -c release --static-swift-stdlib --product beekon-fleet

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libsqlite3-0 zlib1g libcurl4 libmicrohttpd12 ca-certificates libxml2 curl libjs-leaflet \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --create-home --home-dir /var/lib/beekon beekon \
    && mkdir -p /var/lib/beekon/fleet /var/lib/beekon/ingest \
    && chown -R beekon:beekon /var/lib/beekon
COPY --from=build /src/.build/release/beekon-fleet /usr/local/bin/beekon-fleet
# The demo fleet, its routes, the admin page and the API description, where the binary looks.
COPY fleets /usr/local/share/beekon-fleet/fleets
COPY web /usr/local/share/beekon-fleet/web
COPY docs /usr/local/share/beekon-fleet/docs
USER 10001
WORKDIR /var/lib/beekon
ENTRYPOINT ["beekon-fleet"]
CMD ["run", "--data", "/var/lib/beekon/fleet"]
