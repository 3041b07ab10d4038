/** The query parameters Kratos' self-service endpoints read. */
export type FlowQuery = { flow?: string; id?: string; return_to?: string; refresh?: string; aal?: string; token?: string; code?: string };
