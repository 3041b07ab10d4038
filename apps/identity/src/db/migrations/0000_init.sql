CREATE SCHEMA "identity";
