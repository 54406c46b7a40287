"""Results: the Parquet schema, writing, ratings, balance statistics and reports (a later issue)."""
