/** clio's version, kept in step with package.json. */
export const version = "0.1.0";
