"""Production concerns: migrations, PostgreSQL, webhook/health/metrics, logs, shutdown, deploy/."""
