# dbrig's container image: a static binary on a distroless base, run as a non-root user.
#   docker build -t REGISTRY/dbrig:TAG . && docker push REGISTRY/dbrig:TAG
#   dbrig k8s run … --image REGISTRY/dbrig:TAG
# The same image is the coordinator (dbrig run … --spawn=false) and the workers (dbrig worker).
# dbrig's SQLite driver is pure Go (modernc.org/sqlite), so CGO_ENABLED=0 loses nothing.
FROM golang:1.25 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags "-s -w" -o /out/dbrig ./cmd/dbrig

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dbrig /usr/local/bin/dbrig
# 65532 is distroless's nonroot user; the manifests dbrig prints run as it.
USER 65532:65532
ENV HOME=/work XDG_DATA_HOME=/work XDG_STATE_HOME=/work
WORKDIR /work
EXPOSE 7070
ENTRYPOINT ["/usr/local/bin/dbrig"]
