/** An OpenAPI object as plain JSON. */
export type JsonObject = { [key: string]: unknown };

/** `/ref/:refId` → `/ref/{refId}`. */
export function openApiPath(routePath: string): string {
  return routePath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

