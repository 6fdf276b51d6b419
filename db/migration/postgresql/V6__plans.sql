-- Plans: a tenant belongs to a plan, and a policy row may be for a plan as well as for a
-- tenant or for everyone. Every existing row keeps its meaning: its plan is NULL.
--
--   rate_limit_policy.plan       NULL, or the plan the row is for; then project_id is NULL
--                                (a row for both is rejected when loaded, with the reason)
--   rate_limit_api_key.plan      the plan of the key's requests, NULL for none
--   rate_limit_tenant_plan       the plan of a tenant; it outranks the plan of the tenant's
--                                keys and tokens, and is reloaded with the policies
ALTER TABLE rate_limit_policy ADD COLUMN plan VARCHAR(64);
ALTER TABLE rate_limit_api_key ADD COLUMN plan VARCHAR(64);

CREATE TABLE rate_limit_tenant_plan (
    project_id  VARCHAR(255) PRIMARY KEY,
    plan        VARCHAR(64)  NOT NULL CHECK (TRIM(plan) <> ''),
    updated_at  TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL
);

-- The tenants' plans are part of the policy snapshot: a change reloads the policies on every
-- replica, on the policies' own channel (version 3's function), within moments of its commit.
CREATE TRIGGER rate_limit_tenant_plan_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON rate_limit_tenant_plan
    FOR EACH STATEMENT EXECUTE FUNCTION rate_limit_policy_notify();
