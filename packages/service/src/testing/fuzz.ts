/**
 * The service-independent half of the api's and identity's fuzzing suites: hostile strings and
 * values, mutations of a valid body, hostile encodings of it, URL and header helpers, the checks
 * every answer must pass, a tally that runs a route's cases, and table digests. What differs per
 * service (its error shape, its body formats, its cookie and token tricks) stays in that
 * service's `src/testing/fuzz.ts`.
 */
export { attackStrings, mutationsOf, nastyString, nastyValue, withField } from './fuzz-values.js';
export {
  type BodyFormat,
  describeRequest,
  type EncodedBody,
  encodings,
  headerSafe,
  headerValue,
  jsonOf,
  percentEncode,
  queryString,
  serverProblems,
} from './fuzz-http.js';
export { createTally, type RouteFuzz, runsFactor, tableDigests } from './fuzz-tally.js';
