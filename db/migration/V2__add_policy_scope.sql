-- Where a policy's buckets live: LOCAL (each replica its own, the default) or GLOBAL
-- (shared by all replicas in Redis, so the limit written is the limit enforced).
ALTER TABLE rate_limit_policy ADD COLUMN scope VARCHAR(16) DEFAULT 'LOCAL' NOT NULL;
