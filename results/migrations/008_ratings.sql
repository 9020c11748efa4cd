-- Ratings (dbrig rate): the highest target rate (open model) or number of
-- clients (closed model) that meets an SLA, found by a search of experiments,
-- each a normal run tagged rating=ID. Times in seconds; the time split is
-- the rating-time model Λ = ζ + ω·ν + η·δ + Δ with measured terms.
CREATE TABLE ratings (
    id               {{id}},
    name             TEXT NOT NULL,
    status           TEXT NOT NULL, -- running, done, failed, interrupted
    message          TEXT NOT NULL, -- why it failed, or what the answer means
    started_at       TEXT NOT NULL,
    ended_at         TEXT,
    system           TEXT NOT NULL, -- the driver
    workload         TEXT NOT NULL,
    sla              TEXT NOT NULL, -- canonical terms, comma-separated
    search_by        TEXT NOT NULL, -- rate (ops/s, open model) or clients (closed model)
    strategy         TEXT NOT NULL, -- dataset reset: reload, snapshot, keep
    precision_frac   DOUBLE PRECISION NOT NULL, -- 0.05: the answer is within 5 %
    step_s           DOUBLE PRECISION NOT NULL, -- δ asked: each search experiment's length
    sla_duration_s   DOUBLE PRECISION NOT NULL, -- Δ: the final confirmation run's length
    answer           DOUBLE PRECISION,          -- NULL: no answer (yet)
    confirmed        BIGINT NOT NULL,           -- 1: the final run at the answer met the SLA
    first_load_s     DOUBLE PRECISION NOT NULL, -- ζ
    reset_count      BIGINT NOT NULL,           -- ω
    resets_s         DOUBLE PRECISION NOT NULL, -- ω·ν, measured
    experiment_count BIGINT NOT NULL,           -- η (search experiments run, not cached ones)
    experiments_s    DOUBLE PRECISION NOT NULL, -- η·δ, measured
    final_s          DOUBLE PRECISION NOT NULL, -- Δ, measured
    total_s          DOUBLE PRECISION NOT NULL, -- wall time of the whole rating
    early_saved_s    DOUBLE PRECISION NOT NULL  -- experiment time early stopping did not spend
);

-- One experiment of a rating's search, in order.
CREATE TABLE rating_steps (
    rating_id     BIGINT NOT NULL REFERENCES ratings (id) ON DELETE CASCADE,
    seq           BIGINT NOT NULL,
    kind          TEXT   NOT NULL, -- search or final
    target        DOUBLE PRECISION NOT NULL, -- ops/s or clients tried
    achieved      DOUBLE PRECISION NOT NULL, -- measured throughput, ops/s
    pass          BIGINT NOT NULL,
    stopped_early BIGINT NOT NULL,
    reason        TEXT   NOT NULL, -- why it failed or stopped early
    run_id        BIGINT,          -- the stored run (NULL: it did not start)
    reset         TEXT   NOT NULL, -- how the data set was prepared before it
    reset_s       DOUBLE PRECISION NOT NULL,
    seconds       DOUBLE PRECISION NOT NULL, -- warmup + measure time spent
    terms         TEXT   NOT NULL, -- JSON: [{term, measured, limit, unit, pass}]
    PRIMARY KEY (rating_id, seq)
);
