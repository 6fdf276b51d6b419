-- Layered limits: a row may be one more limit on the requests it applies to, besides
-- their endpoint's own rps_limit. Every existing row keeps its meaning: its new columns
-- are NULL or their defaults, which say "this endpoint's own limit, in requests per second
-- with the configured burst factor, counting each request's weight", as before.
--
--   limit_name      NULL: the endpoint's own limit (as before). Otherwise the limit's name,
--                   also its name in the RateLimit fields; rows of one name layer together
--                   and resolve through the precedence chain on their own.
--   applies_to      ENDPOINT (a bucket per endpoint and caller), GROUP (one bucket per
--                   caller for the endpoints of endpoint_group) or API (one bucket per caller
--                   for every endpoint). GROUP and API rows have endpoint 'default'.
--   endpoint_group  the group of a GROUP limit, defined in ratelimit.groups.<name>
--   limit_count     instead of rps_limit: this many points or requests per limit_window
--   limit_window    an ISO-8601 duration from PT1S to P31D, e.g. PT1M, PT1H
--   burst           the most a full bucket holds; NULL means limit_count
--   counts          POINTS (each request costs its endpoint's weight) or REQUESTS (1 each)
ALTER TABLE rate_limit_policy ALTER COLUMN rps_limit DROP NOT NULL;
ALTER TABLE rate_limit_policy ADD COLUMN limit_name VARCHAR(64);
ALTER TABLE rate_limit_policy ADD COLUMN applies_to VARCHAR(16) DEFAULT 'ENDPOINT' NOT NULL;
ALTER TABLE rate_limit_policy ADD COLUMN endpoint_group VARCHAR(64);
ALTER TABLE rate_limit_policy ADD COLUMN limit_count BIGINT;
ALTER TABLE rate_limit_policy ADD COLUMN limit_window VARCHAR(32);
ALTER TABLE rate_limit_policy ADD COLUMN burst BIGINT;
ALTER TABLE rate_limit_policy ADD COLUMN counts VARCHAR(16) DEFAULT 'POINTS' NOT NULL;
