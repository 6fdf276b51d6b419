-- Every replica hears of an API key change as soon as it commits, as with policies
-- (version 3): replicas hold the active keys in memory, so an issued key works and a
-- deactivated or deleted key stops working everywhere within moments, not at the next
-- periodic refresh. Statement level, one notification per statement, empty payload.
CREATE FUNCTION rate_limit_api_key_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('rate_limit_api_key_changed', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER rate_limit_api_key_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON rate_limit_api_key
    FOR EACH STATEMENT EXECUTE FUNCTION rate_limit_api_key_notify();
