export { healthSchema, type Problem, problemSchema } from './common/problem.js';
