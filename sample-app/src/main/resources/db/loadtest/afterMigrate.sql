-- Runs after the shop's migrations in the 'loadtest' profile only (a Flyway callback, so it
-- takes no version number from the shop's migrations). The rate comes from
-- spring.flyway.placeholders.rps.
UPDATE rate_limit_policy SET rps_limit = ${rps} WHERE endpoint = 'GET /api/products' AND project_id IS NULL;
