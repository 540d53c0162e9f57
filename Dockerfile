# The image every annalist service runs: one static binary, the subcommand
# chosen by the service (`annalist consume STAGE`, `annalist serve`, …).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/annalist .

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/annalist annalist
COPY --from=build /out/annalist /usr/local/bin/annalist
USER annalist
WORKDIR /var/lib/annalist
ENTRYPOINT ["annalist"]
CMD ["help"]
