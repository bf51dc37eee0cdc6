"""The files beside the database: the cold archive's Parquet files (messages, summaries), the
atomic snapshot writer and the recall index file. No module here holds a query of the database;
the planner's reader path loads this package, so it stays light (nothing imported here)."""
