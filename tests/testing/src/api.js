// Where the app's Plant Store is.
export const API = 'https://plants.example/api/v1';
