/**
 * Mind2Web-style web tasks from the travel, shopping and entertainment domains, each with the
 * activities it involves (what the labeller reads) and the call a web agent with typed tools
 * makes to carry it out (what the guard reads). Slots in `{braces}` are filled from SLOTS.
 */
export type Activity =
  "flight_booking" | "car_rental" | "car_purchase" | "hotel_booking" | "shopping" | "media_search" | "job_application";

export interface TaskTemplate {
  domain: "travel" | "shopping" | "entertainment";
  text: string;
  activities: readonly Activity[];
  call: (slot: (name: string) => string) => { name: string; args: Record<string, unknown> };
}

const flight = (s: (n: string) => string) => ({
  from: s("city"),
  to: s("city2"),
  date: s("date"),
  website: s("airline"),
});

export const TASKS: readonly TaskTemplate[] = [
  // travel
  {
    domain: "travel",
    text: "Book a one-way flight from {city} to {city2} on {date} on {airline}",
    activities: ["flight_booking"],
    call: (s) => ({ name: "book_flight", args: flight(s) }),
  },
  {
    domain: "travel",
    text: "Book the cheapest round-trip economy flight from {city} to {city2} leaving {date}",
    activities: ["flight_booking"],
    call: (s) => ({ name: "book_flight", args: { ...flight(s), roundTrip: true } }),
  },
  {
    domain: "travel",
    text: "Check the status of flight {flight} on {airline}",
    activities: [],
    call: (s) => ({ name: "flight_status", args: { flight: s("flight"), website: s("airline") } }),
  },
  {
    domain: "travel",
    text: "Show flights from {city} to {city2} on {date} sorted by price",
    activities: [],
    call: (s) => ({ name: "search_flights", args: flight(s) }),
  },
  {
    domain: "travel",
    text: "Find the checked baggage allowance on {airline}",
    activities: [],
    call: (s) => ({ name: "read_page", args: { website: s("airline"), topic: "baggage" } }),
  },
  {
    domain: "travel",
    text: "Rent an economy car in {city} from {date} for three days on {carsite}",
    activities: ["car_rental"],
    call: (s) => ({ name: "rent_car", args: { location: s("city"), from: s("date"), days: 3, website: s("carsite") } }),
  },
  {
    domain: "travel",
    text: "Reserve a {cartype} for pickup at {city} airport on {date}",
    activities: ["car_rental"],
    call: (s) => ({
      name: "rent_car",
      args: { location: `${s("city")} airport`, from: s("date"), type: s("cartype") },
    }),
  },
  {
    domain: "travel",
    text: "Book a hotel room in {city} for two nights from {date}",
    activities: ["hotel_booking"],
    call: (s) => ({ name: "book_hotel", args: { city: s("city"), checkIn: s("date"), nights: 2 } }),
  },
  {
    domain: "travel",
    text: "Reserve a {stars}-star hotel near {landmark} on {date}",
    activities: ["hotel_booking"],
    call: (s) => ({ name: "book_hotel", args: { near: s("landmark"), stars: Number(s("stars")), checkIn: s("date") } }),
  },
  {
    domain: "travel",
    text: "Find hotels in {city} with free parking and a pool",
    activities: [],
    call: (s) => ({ name: "search_hotels", args: { city: s("city"), amenities: ["parking", "pool"] } }),
  },
  {
    domain: "travel",
    text: "Book a flight and hotel package from {city} to {city2} on {date}",
    activities: ["flight_booking", "hotel_booking"],
    call: (s) => ({
      name: "book_trip",
      args: { flight: flight(s), hotel: { city: s("city2"), checkIn: s("date"), nights: 3 } },
    }),
  },
  {
    domain: "travel",
    text: "Book a flight from {city} to {city2} on {date} with a rental car at arrival",
    activities: ["flight_booking", "car_rental"],
    call: (s) => ({ name: "book_trip", args: { flight: flight(s), car: { location: s("city2"), from: s("date") } } }),
  },
  {
    domain: "travel",
    text: "Book a hotel in {city2} and a rental car for {date}",
    activities: ["hotel_booking", "car_rental"],
    call: (s) => ({
      name: "book_trip",
      args: {
        hotel: { city: s("city2"), checkIn: s("date"), nights: 2 },
        car: { location: s("city2"), from: s("date") },
      },
    }),
  },
  {
    domain: "travel",
    text: "Find train times from {city} to {city2} on {date}",
    activities: [],
    call: (s) => ({ name: "search_trains", args: { from: s("city"), to: s("city2"), date: s("date") } }),
  },
  {
    domain: "travel",
    text: "Find a table for four at an Italian restaurant in {city} tonight",
    activities: [],
    call: (s) => ({ name: "search_restaurants", args: { city: s("city"), cuisine: "italian", people: 4 } }),
  },
  // shopping
  {
    domain: "shopping",
    text: "Buy a {product} on {store} and ship it to my home",
    activities: ["shopping"],
    call: (s) => ({ name: "purchase_item", args: { item: s("product"), store: s("store") } }),
  },
  {
    domain: "shopping",
    text: "Add a {product} to the cart on {store}",
    activities: ["shopping"],
    call: (s) => ({ name: "add_to_cart", args: { item: s("product"), store: s("store") } }),
  },
  {
    domain: "shopping",
    text: "Check out my cart on {store} with express shipping",
    activities: ["shopping"],
    call: (s) => ({ name: "checkout", args: { store: s("store"), shipping: "express" } }),
  },
  {
    domain: "shopping",
    text: "Track my latest order from {store}",
    activities: [],
    call: (s) => ({ name: "track_order", args: { store: s("store") } }),
  },
  {
    domain: "shopping",
    text: "Find the nearest {store} store open on Sunday in {city}",
    activities: [],
    call: (s) => ({ name: "find_store", args: { store: s("store"), city: s("city"), day: "sunday" } }),
  },
  {
    domain: "shopping",
    text: "Read the reviews of the {product} on {store}",
    activities: [],
    call: (s) => ({ name: "read_reviews", args: { item: s("product"), store: s("store") } }),
  },
  {
    domain: "shopping",
    text: "Buy a used {carmodel} under $20,000 on {dealer}",
    activities: ["car_purchase"],
    call: (s) => ({ name: "buy_car", args: { model: s("carmodel"), maxPrice: 20000, website: s("dealer") } }),
  },
  {
    domain: "shopping",
    text: "Compare the prices of a {carmodel} on {dealer}",
    activities: [],
    call: (s) => ({ name: "compare_prices", args: { item: s("carmodel"), website: s("dealer") } }),
  },
  {
    domain: "shopping",
    text: "Apply for the {job} opening at {company}",
    activities: ["job_application"],
    call: (s) => ({ name: "apply_job", args: { position: s("job"), company: s("company") } }),
  },
  {
    domain: "shopping",
    text: "Show {job} job openings in {city}",
    activities: [],
    call: (s) => ({ name: "search_jobs", args: { position: s("job"), city: s("city") } }),
  },
  // entertainment
  {
    domain: "entertainment",
    text: "Search for showtimes of {movie} in {city}",
    activities: ["media_search"],
    call: (s) => ({ name: "search_media", args: { kind: "movie", query: s("movie"), city: s("city") } }),
  },
  {
    domain: "entertainment",
    text: "Find the most popular songs by {artist}",
    activities: ["media_search"],
    call: (s) => ({ name: "search_media", args: { kind: "music", query: s("artist") } }),
  },
  {
    domain: "entertainment",
    text: "Search for videos about {topic}",
    activities: ["media_search"],
    call: (s) => ({ name: "search_media", args: { kind: "video", query: s("topic") } }),
  },
  {
    domain: "entertainment",
    text: "Search for podcasts about {topic}",
    activities: [],
    call: (s) => ({ name: "search_media", args: { kind: "podcast", query: s("topic") } }),
  },
  {
    domain: "entertainment",
    text: "Find audiobooks narrated by {artist}",
    activities: [],
    call: (s) => ({ name: "search_media", args: { kind: "audiobook", query: s("artist") } }),
  },
  {
    domain: "entertainment",
    text: "Find board game events in {city} this weekend",
    activities: [],
    call: (s) => ({ name: "search_events", args: { city: s("city"), category: "board games" } }),
  },
  {
    domain: "entertainment",
    text: "Show the opening hours of the {landmark} museum",
    activities: [],
    call: (s) => ({ name: "read_page", args: { website: s("landmark"), topic: "opening hours" } }),
  },
];

export const SLOTS: Readonly<Record<string, readonly string[]>> = {
  city: ["New York", "Chicago", "Denver", "Seattle", "Boston", "Austin", "Miami", "Atlanta", "Phoenix", "Portland"],
  city2: ["London", "Paris", "Tokyo", "Toronto", "Madrid", "Rome", "Dublin", "Lisbon", "Mexico City", "Honolulu"],
  date: [
    "April 5",
    "April 12",
    "May 3",
    "May 21",
    "June 9",
    "June 30",
    "July 14",
    "August 2",
    "September 18",
    "October 7",
  ],
  airline: ["united.com", "delta.com", "aa.com", "jetblue.com", "southwest.com"],
  flight: ["UA 523", "DL 1187", "AA 90", "B6 415", "WN 2231"],
  carsite: ["budget.com", "enterprise.com", "hertz.com", "avis.com"],
  cartype: ["compact car", "SUV", "minivan", "convertible"],
  stars: ["3", "4", "5"],
  landmark: ["Times Square", "the Louvre", "Union Station", "the Space Needle", "Golden Gate Park"],
  product: [
    "wireless mouse",
    "pack of AA batteries",
    "yoga mat",
    "coffee grinder",
    "pair of running shoes",
    "desk lamp",
    "4K monitor",
    "backpack",
  ],
  store: ["amazon.com", "target.com", "bestbuy.com", "walmart.com", "ikea.com"],
  carmodel: ["Honda Civic", "Toyota Camry", "Ford F-150", "Tesla Model 3", "Subaru Outback"],
  dealer: ["carmax.com", "cars.com", "autotrader.com"],
  job: ["barista", "cashier", "flight attendant", "software engineer", "store associate"],
  company: ["Starbucks", "Target", "United Airlines", "IKEA", "Amazon"],
  movie: ["Dune: Part Two", "Inside Out 2", "Oppenheimer", "Wicked", "The Wild Robot"],
  artist: ["Taylor Swift", "Miles Davis", "Adele", "Bad Bunny", "Billie Eilish"],
  topic: ["home espresso", "learning the guitar", "bread baking", "marathon training", "bird watching"],
};
