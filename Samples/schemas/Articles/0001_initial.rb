# CDQ's articles and authors: deleting an author deletes their articles.
schema "0001 initial" do
  entity "Article" do
    string   :title, optional: false
    string   :body
    datetime :published_at

    belongs_to :author
  end

  entity "Author" do
    string :name, optional: false

    has_many :articles, deletionRule: "Cascade"
  end
end
