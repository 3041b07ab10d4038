-- A hold whose call reached the provider carries, from then on, what the call is charged if its
-- instance stops before settling it (a crash, or settlements that failed until the hold expired):
-- all that was reserved, as app.settle_calls takes it. The sweeper charges such a hold once it
-- expires, instead of giving it back; a hold without it (never forwarded, a stock's spare) is released.
ALTER TABLE "app"."reservations" ADD COLUMN "forwarded" jsonb;
