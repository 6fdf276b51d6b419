-- The sample's own migration. It runs after the limiter has created its tables, so it can
-- seed them: the policies below, and three demo API keys (stored only as HMAC-SHA256 under
-- ratelimit.api-key.hash-secret).

-- Every endpoint without a row of its own: 10 requests per second, bursts of 20.
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('default', NULL, 10);
-- Paths the shop does not serve, per client address.
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('UNKNOWN', NULL, 2);
-- The catalogue is cheap, and tenant acme pays for more of it.
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /api/products', NULL, 20);
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /api/products', 'acme', 100);
-- Orders weigh 5: a burst of two orders, then one every half second.
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('POST /api/orders', NULL, 10);
-- Reports weigh 10 at one token a second: one report every ten seconds.
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /api/reports/*', NULL, 1);
-- Login: 5 attempts a minute.
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('POST /api/login', NULL, 0.083333);

-- Demo keys: demo-acme-key-0001 (acme), demo-globex-key-0001 (globex), demo-revoked-key-0001 (inactive).
INSERT INTO rate_limit_api_key (key_hash, principal, project_id, active)
    VALUES ('6556331b42e1aa8b0bad72f7bccc8582b9153f9f809872abfb5c6414c8efc311', 'acme-shop-frontend', 'acme', TRUE);
INSERT INTO rate_limit_api_key (key_hash, principal, project_id, active)
    VALUES ('eedf791823ab7cae5194c8021ebc84777ccbb3fa466766e3b70d2b0a85ca89fe', 'globex-integration', 'globex', TRUE);
INSERT INTO rate_limit_api_key (key_hash, principal, project_id, active)
    VALUES ('886a09751791696dd7530f0b9f864b70ca7ae6aef382afcf72c930ab7a613f3a', 'acme-old-script', 'acme', FALSE);
