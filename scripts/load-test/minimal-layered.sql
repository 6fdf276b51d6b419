-- The rows of the load test's minimal-layered variant (minimal-layered.properties): the
-- endpoint's own limit at 1,000,000 per second, 1,000,000,000 requests an hour per client
-- across the API, and 30,000,000 points a minute per client for the catalogue group.
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /api/products/*', NULL, 1000000);
INSERT INTO rate_limit_policy
    (endpoint, project_id, limit_name, applies_to, endpoint_group, limit_count, limit_window, counts)
VALUES
    ('default', NULL, 'hourly', 'API',   NULL,        1000000000, 'PT1H', 'REQUESTS'),
    ('default', NULL, 'points', 'GROUP', 'catalogue', 30000000,   'PT1M', 'POINTS');
