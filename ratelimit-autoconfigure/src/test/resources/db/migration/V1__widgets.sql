-- The test application's own migration: its own table, and policy rows it seeds into the
-- limiter's table (which exists already, because the limiter migrates first).
CREATE TABLE widget (
    id    BIGINT PRIMARY KEY,
    name  VARCHAR(100) NOT NULL
);
INSERT INTO widget (id, name) VALUES (1, 'sprocket');

INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /api/products', NULL, 2);
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /api/users/*', 'acme', 50);
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('default', NULL, 5);
