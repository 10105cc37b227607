# Builds the manager into a distroless, non-root image: docker build -t operator-demo:dev .
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH

WORKDIR /workspace
# Module downloads in their own layer, reused until go.mod or go.sum change. The harness's go.mod is
# the module graph's too (go.mod's replace), though no package of it is built.
COPY go.mod go.sum ./
COPY testing/go.mod testing/go.sum testing/
RUN go mod download

# Only the packages the manager is built from.
COPY api/ api/
COPY cmd/ cmd/
COPY controllers/ controllers/

# Static binary; GOARCH comes from the platform being built for.
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w" -o manager ./cmd

FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
# Numeric, so that the kubelet can check runAsNonRoot.
USER 65532:65532

ENTRYPOINT ["/manager"]
