-- Every replica hears of a policy change as soon as it commits: each statement that
-- changes rate_limit_policy sends one notification on the channel the replicas LISTEN on.
-- Statement level, so a bulk update sends one notification, not one per row; PostgreSQL
-- also folds identical notifications of one transaction into one, delivered at commit
-- (a rolled-back change sends nothing). The payload is empty: replicas reload the whole
-- table, so there is nothing to say beyond "it changed".
CREATE FUNCTION rate_limit_policy_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('rate_limit_policy_changed', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER rate_limit_policy_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON rate_limit_policy
    FOR EACH STATEMENT EXECUTE FUNCTION rate_limit_policy_notify();
